import sys
from pathlib import Path

# the research tests use the product tests' helpers (cli_run, test_skilled's tiny training)
# and import research.* from the repository's root
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests"))
sys.path.insert(0, str(HERE.parent.parent))
