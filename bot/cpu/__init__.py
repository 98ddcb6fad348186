"""The fair CPU pool of worker processes, and the game's jobs that run in it: AI moves and
reviews. The pool takes any picklable job: the UI sends its drawing jobs (bot.ui.picture_jobs)."""
