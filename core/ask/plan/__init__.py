"""The plan stage: the planner's state, the offline rules and the optional LLM planner."""
