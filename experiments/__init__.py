"""filterlab's experiment runner: a TOML config in, one results table out.

`python -m experiments run CONFIG` validates the config (config.py), expands its
grid into runs (grid.py), executes the C++ workers on a local pool or a Dask
cluster (execute.py), keeps each finished run on disk so an interrupted sweep
resumes (store.py) and writes results/<experiment>/results.parquet + meta.json
(meta.py)."""
