"""What the hardware measured (Nsight Compute's reports) against what smemsim predicts."""
