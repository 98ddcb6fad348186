"""Everything a member sees: buttons and forms, board messages, text and embeds, pictures,
the pan window and the short private replies."""
