"""Running the bot: the entry point, settings, the checks before connecting, logging, the
wiring (the client) and the few discord.py patches."""
