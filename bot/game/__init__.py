"""The game itself, with no Discord in it: the model, the rules of play the bot adds
(options, limits, ratings), the services and the storage ports they own."""
