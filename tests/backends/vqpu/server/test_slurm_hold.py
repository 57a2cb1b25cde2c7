"""The Slurm reservation of the vQPU licences: made from scontrol's licence list, made once, deleted once."""

import stat

import pytest

from backends.vqpu.server.slurm_hold import RESERVATION, SlurmHold


def fake_scontrol(folder, licences="LicenseName=vqpu Total=4 Used=1 Free=3 Reserved=0 Remote=no"):
    """An scontrol that logs its calls and keeps a reservation in a file, as Slurm would."""
    log, state = folder / "calls", folder / "reserved"
    script = folder / "scontrol"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log}\n'
        'case "$1 $2" in\n'
        f'  "show license") echo "{licences}" ;;\n'
        f'  "show reservation") test -f {state} ;;\n'
        f'  "create reservation") touch {state} ;;\n'
        f'  "delete ReservationName={RESERVATION}") rm {state} ;;\n'
        "esac\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return [str(script)], log


def test_hold_reserves_every_licence_of_the_resource_once_and_release_deletes_it(tmp_path):
    command, log = fake_scontrol(
        tmp_path, "LicenseName=vqpu@qsrv Total=4 Used=0\nLicenseName=other Total=2 Used=0"
    )
    hold = SlurmHold(scontrol=command)
    hold.hold()
    hold.hold()
    assert hold.held()
    hold.release()
    hold.release()
    assert not hold.held()
    created = [line for line in log.read_text().splitlines() if line.startswith("create")]
    assert created == [
        f"create reservation ReservationName={RESERVATION} StartTime=now Duration=infinite Users=root "
        "Flags=ANY_NODES Licenses=vqpu@qsrv:4"
    ]
    assert log.read_text().count(f"delete ReservationName={RESERVATION}") == 1


@pytest.mark.parametrize("shown", ["LicenseName=other Total=2 Used=0", "LicenseName=vqpu Total=0 Used=0"])
def test_no_licence_to_reserve_is_an_error_naming_the_resource(tmp_path, shown):
    command, _ = fake_scontrol(tmp_path, shown)
    with pytest.raises(RuntimeError, match="Slurm has no licence 'vqpu' to reserve"):
        SlurmHold(scontrol=command).hold()


def test_a_failing_scontrol_is_an_error_naming_the_command(tmp_path):
    with pytest.raises(RuntimeError, match=r"scontrol show license -o could not run"):
        SlurmHold(scontrol=[str(tmp_path / "no-scontrol")]).licences()
