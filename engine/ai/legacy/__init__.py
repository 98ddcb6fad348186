"""The AI as it was before the compiled core (frozen copy): the reference player of the arena.

Nothing here changes with the live levels, so `caro arena --levels impossible,legacy-impossible`
measures today's AI against the old one. Only the solver is shared (it proves small boards).
"""

from .levels import analyse_move, choose_move

__all__ = ["analyse_move", "choose_move"]
