"""Pages stage: plain page models built from analysis results."""
