"""The envelope's error block (core.engine.envelope_schema) takes its codes from core.errors: one list, no drift."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from core.engine.envelope_schema import ErrorBlock
from core.errors import ACCESS_CODES, CRITICAL_CODES, HTTP_STATUS, NON_CRITICAL_CODES


@pytest.mark.parametrize("code", CRITICAL_CODES + NON_CRITICAL_CODES + ACCESS_CODES)
def test_every_contract_code_is_a_valid_error_block(code):
    block = ErrorBlock(code=code, http_status=HTTP_STATUS[code], details="detalle", hints=[])
    assert block.code == code


@pytest.mark.parametrize("code", ["NOT_A_CODE", "invalid_payload", ""])
def test_a_code_outside_the_contract_is_refused(code):
    with pytest.raises(ValidationError):
        ErrorBlock(code=code, http_status=422, details="detalle", hints=[])


def test_the_exported_schema_lists_the_codes_in_the_contract_order():
    assert ErrorBlock.model_json_schema()["properties"]["code"]["enum"] == list(
        CRITICAL_CODES + NON_CRITICAL_CODES + ACCESS_CODES
    )
