//! Whether an optional field is there: a field is present exactly when the attr's layout
//! has it.

use crate::EncodeError;

/// Checks one field's presence against the layout; returns the value to write.
pub(crate) fn field<T>(
    record: &'static str,
    field: &'static str,
    wanted: bool,
    value: Option<T>,
) -> Result<Option<T>, EncodeError> {
    match (wanted, value) {
        (true, Some(v)) => Ok(Some(v)),
        (true, None) => Err(EncodeError::MissingField { record, field }),
        (false, Some(_)) => Err(EncodeError::UnexpectedField { record, field }),
        (false, None) => Ok(None),
    }
}

/// The value of a field the layout has, for a writer that trusts an earlier [`field`] check
/// for the fields it does not have: a missing one is still [`EncodeError::MissingField`].
#[inline]
pub(crate) fn present<T>(
    record: &'static str,
    field: &'static str,
    value: Option<T>,
) -> Result<T, EncodeError> {
    match value {
        Some(v) => Ok(v),
        None => Err(EncodeError::MissingField { record, field }),
    }
}
