-- mysql.proc, the table where MariaDB keeps stored procedures: slurmdbd defines and calls
-- some (get_parent_limits, when it lists associations), and without the table every
-- association below the first is silently dropped from what slurmctld and sacctmgr see.
-- Debian's mariadb-server-core ships no system-table scripts (mariadb-install-db comes
-- with mariadb-server), so start.sh creates this one table with mariadbd --bootstrap.
-- Layout of MariaDB 10.4 and later.
CREATE DATABASE IF NOT EXISTS mysql;
USE mysql;
CREATE TABLE IF NOT EXISTS proc (
  db char(64) COLLATE utf8mb3_bin NOT NULL DEFAULT '',
  name char(64) NOT NULL DEFAULT '',
  type enum('FUNCTION','PROCEDURE','PACKAGE','PACKAGE BODY') NOT NULL,
  specific_name char(64) NOT NULL DEFAULT '',
  language enum('SQL') NOT NULL DEFAULT 'SQL',
  sql_data_access enum('CONTAINS_SQL','NO_SQL','READS_SQL_DATA','MODIFIES_SQL_DATA') NOT NULL DEFAULT 'CONTAINS_SQL',
  is_deterministic enum('YES','NO') NOT NULL DEFAULT 'NO',
  security_type enum('INVOKER','DEFINER') NOT NULL DEFAULT 'DEFINER',
  param_list blob NOT NULL,
  returns longblob NOT NULL,
  body longblob NOT NULL,
  definer varchar(384) COLLATE utf8mb3_bin NOT NULL DEFAULT '',
  created timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(),
  modified timestamp NOT NULL DEFAULT '0000-00-00 00:00:00',
  sql_mode set('REAL_AS_FLOAT','PIPES_AS_CONCAT','ANSI_QUOTES','IGNORE_SPACE','IGNORE_BAD_TABLE_OPTIONS',
    'ONLY_FULL_GROUP_BY','NO_UNSIGNED_SUBTRACTION','NO_DIR_IN_CREATE','POSTGRESQL','ORACLE','MSSQL','DB2',
    'MAXDB','NO_KEY_OPTIONS','NO_TABLE_OPTIONS','NO_FIELD_OPTIONS','MYSQL323','MYSQL40','ANSI',
    'NO_AUTO_VALUE_ON_ZERO','NO_BACKSLASH_ESCAPES','STRICT_TRANS_TABLES','STRICT_ALL_TABLES',
    'NO_ZERO_IN_DATE','NO_ZERO_DATE','INVALID_DATES','ERROR_FOR_DIVISION_BY_ZERO','TRADITIONAL',
    'NO_AUTO_CREATE_USER','HIGH_NOT_PRECEDENCE','NO_ENGINE_SUBSTITUTION','PAD_CHAR_TO_FULL_LENGTH',
    'EMPTY_STRING_IS_NULL','SIMULTANEOUS_ASSIGNMENT','TIME_ROUND_FRACTIONAL') NOT NULL DEFAULT '',
  comment text COLLATE utf8mb3_bin NOT NULL,
  character_set_client char(32) COLLATE utf8mb3_bin DEFAULT NULL,
  collation_connection char(32) COLLATE utf8mb3_bin DEFAULT NULL,
  db_collation char(32) COLLATE utf8mb3_bin DEFAULT NULL,
  body_utf8 longblob DEFAULT NULL,
  aggregate enum('NONE','GROUP') NOT NULL DEFAULT 'NONE',
  PRIMARY KEY (db,name,type)
) ENGINE=Aria DEFAULT CHARSET=utf8mb3 COMMENT='Stored Procedures';
