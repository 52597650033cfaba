"""Read stage: safe file access and one parser per input format. No analysis here."""
