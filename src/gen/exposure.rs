//! The author's choice of exposure: absent, `false` or `true`.

use super::*;

/// The author's instance choice: `None` (the default), `Some(false)` or
/// `Some(true)`, a third each.
pub fn exposed() -> BoxedStrategy<Option<bool>> {
    one_of![Just(None), Just(Some(false)), Just(Some(true))].boxed()
}
