import subprocess
import sys
from pathlib import Path

import pytest

WORKFLOW = Path(__file__).parents[2] / "examples" / "clustagg" / "workflow.cwl"


@pytest.mark.slow
def test_workflow_description_is_valid_cwl_with_the_loop_extension():
    done = subprocess.run(
        [sys.executable, "-m", "cwltool", "--enable-ext", "--validate", str(WORKFLOW)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "is valid CWL" in done.stdout
