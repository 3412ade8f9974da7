"""What the reports add to each game (`sim.core.game.GameSpec.report_module`)."""
