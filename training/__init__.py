"""The pipeline behind the compiled core's evaluation: pattern tables from the rules, self-play
data, the fit of the pattern weights, and the check that new weights play better. Never imported
by the runtime (engine/ reads only the files it exports to engine/ai/data/)."""
