#!/usr/bin/env bash
# Make a throw-away certificate authority and a vQPU server certificate signed by it, for the
# examples and tests (a centre uses its own CA instead). Writes into DIR:
#   ca.pem (give it to clients as VQPU_CA), server.pem and server.key (serve --tls-cert/--tls-key).
# The server certificate names HOSTS (default: localhost 127.0.0.1 ::1) and lasts DAYS days.
#   bash examples/slurm/make_tls.sh DIR [HOST ...]
set -euo pipefail
DIR=${1:?usage: make_tls.sh DIR [HOST ...]}
shift
if [ $# -gt 0 ]; then HOSTS=("$@"); else HOSTS=(localhost 127.0.0.1 ::1); fi
DAYS=${DAYS:-30}
mkdir -p "$DIR"
umask 077
san=""
for host in "${HOSTS[@]}"; do
    if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then san+="IP:$host,"; else san+="DNS:$host,"; fi
done
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$DAYS" \
    -subj "/CN=bbqmis throw-away vQPU CA" -keyout "$DIR/ca.key" -out "$DIR/ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=${HOSTS[0]}" \
    -keyout "$DIR/server.key" -out "$DIR/server.csr" 2>/dev/null
openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca.key" -CAcreateserial \
    -days "$DAYS" -out "$DIR/server.pem" \
    -extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "${san%,}") \
    2>/dev/null
rm -f "$DIR/server.csr" "$DIR/ca.srl"
chmod 644 "$DIR/ca.pem" "$DIR/server.pem"
echo "$DIR/ca.pem $DIR/server.pem $DIR/server.key"
