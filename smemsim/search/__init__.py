"""Searches over changes: fix's paddings and swizzles, sweeps of parameters, the worker pool."""
