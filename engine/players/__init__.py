"""Players other than caro's own AI, to measure it against or to play beside it: the Monte Carlo
reference opponent (montecarlo.py) and an external piskvork brain run as a process
(external.py). Import only the game (engine.game)."""
