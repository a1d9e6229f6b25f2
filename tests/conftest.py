import sys
from pathlib import Path

# tests import their helpers (scenario.py, bots/) by plain module name
sys.path.insert(0, str(Path(__file__).parent))
