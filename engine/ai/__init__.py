"""The AI opponents: choose_move/analyse_move for the four levels, explain for move captions,
decide_opening for its side of an opening rule (engine.ai.openings.decide)."""

from collections.abc import Callable

from ..support import cores
from .explain import REASONS, explain
from .levels import DEFAULT_TIME_LIMITS, LEVELS, MoveInfo, analyse_move, choose_move
from .openings import decide as decide_opening


def exercise_cores() -> None:
    """Call every function of the compiled cores (the search core and the solver's) once with
    each signature the AI calls it with: numba then loads, or in a build compiles, all of them."""
    from ..solve import solver
    from . import compiled

    compiled.exercise()
    solver.exercise_core()


# The build's parts, in order, each compiled in a process of its own (engine.support.cores.build): the
# search core's (engine.ai.compiled.PARTS), the solver's, then a last call of every function,
# which finds them all in the cache.
CORE_PARTS = (
    "rules", "vcf", "threats", "search", "solver", "all",
)


def build_core_part(name: str) -> None:
    """Compile one of CORE_PARTS into this host's cache (what `caro prepare --part` runs)."""
    from ..solve import solver
    from . import compiled

    if name == "solver":
        solver.exercise_core()
    elif name == "all":
        exercise_cores()
    elif name in compiled.PARTS:
        compiled.build_part(name)
    else:
        raise ValueError(f"no part {name!r} of the compiled cores")


def warm_up(progress: Callable[[str], None] | None = None) -> None:
    """Load the compiled cores into this process, so that no move pays for it; a host that has
    none builds them first (engine.support.cores: under a lock, one process of a host at a time)."""
    cores.ensure(exercise_cores, progress, CORE_PARTS)


def build_cores(progress: Callable[[str], None] | None = None) -> float:
    """Build the compiled cores into this host's cache unless they are built (engine.support.cores.build):
    the seconds it took, 0.0 if there was nothing to do."""
    return cores.build(exercise_cores, progress, CORE_PARTS)


def load_cores_when_ready() -> None:
    """In an engine.support.cores.Policy.FALL_BACK process: load the cores in a background thread as soon
    as a build of them appears (engine.support.cores.load_when_ready)."""
    cores.load_when_ready(exercise_cores)


__all__ = [
    "DEFAULT_TIME_LIMITS",
    "LEVELS",
    "REASONS",
    "MoveInfo",
    "analyse_move",
    "CORE_PARTS",
    "build_core_part",
    "build_cores",
    "choose_move",
    "decide_opening",
    "exercise_cores",
    "explain",
    "load_cores_when_ready",
    "warm_up",
]
