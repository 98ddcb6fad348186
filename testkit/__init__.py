"""The test kit, shared by tests/ and bench/: the local Discord double and its playground,
a throwaway PostgreSQL server, and helpers to run, crash and cluster the real bot process."""
