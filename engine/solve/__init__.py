"""Perfect play on small boards: the exact solver (solver.py) and its compiled search
(_solver_core.py). Imports the game (engine.game) and the compiled cores' builds
(engine.support), never the AI."""
