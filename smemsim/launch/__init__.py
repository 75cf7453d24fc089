"""Whole-launch analyses: every request of a launch traced and costed, hazards, occupancy, layouts."""
