"""The fair CPU pool of worker processes, and the jobs that run in it: AI moves, reviews,
replay animations and review pictures."""
