"""The ``pi/*`` requests: their names, params/result models and handlers."""
