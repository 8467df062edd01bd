//! `serve`: the reference model served over the protocol on stdin and
//! stdout, with the fault or the variant asked for.

use std::io;
use std::process::ExitCode;

use rt_tool_3::serve::{self, Settings};

use super::fail::Fail;

/// `serve`: serves until `stop` or the end of stdin.
pub(crate) fn serve(settings: Settings) -> Result<ExitCode, Fail> {
    let out = io::BufWriter::new(io::stdout().lock());
    serve::serve(io::stdin().lock(), out, settings)
        .map(|()| ExitCode::SUCCESS)
        .map_err(|e| Fail::from(format!("serve: {e}")))
}
