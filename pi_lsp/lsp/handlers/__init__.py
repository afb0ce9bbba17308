"""The handlers of the ``pi/*`` requests (the contract they serve lives in ``lsp/protocol/``)."""
