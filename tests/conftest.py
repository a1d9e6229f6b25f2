import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# CI runs the statistical tests at a smaller size unless FISHING2SIM_FULL=1.
FULL = os.environ.get("FISHING2SIM_FULL") == "1"


@pytest.fixture
def seed():
    return 20261129
