"""Benchmarks: `make bench` measures the pipeline, the tools at national scale, the ETL and the browser."""
