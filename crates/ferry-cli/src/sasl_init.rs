//! librdkafka calls Cyrus SASL's `sasl_client_init` when it creates its first client, whatever
//! the client's mechanism. Cyrus then loads every plugin of its plugin directory (on Debian,
//! libsasl2-modules: ANONYMOUS, CRAM-MD5, DIGEST-MD5, LOGIN, NTLM, PLAIN, SCRAM and sasldb with
//! Berkeley DB), about 0.6 MiB of an idle worker's RSS. librdkafka uses Cyrus for GSSAPI only
//! (its PLAIN, SCRAM and OAUTHBEARER are its own), so most workers never need it.
//!
//! build.rs links the `ferry` binary with `--wrap=sasl_client_init --wrap=sasl_client_new`:
//! librdkafka's initialisation comes here and does nothing, and the first `sasl_client_new`, at a
//! GSSAPI client's first connection to a broker, runs Cyrus's real initialisation once before
//! it. Every other Cyrus call librdkafka makes works on the connection `sasl_client_new` made.

use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

const SASL_OK: c_int = 0;

/// The result of Cyrus's real initialisation, run once; Cyrus's own is not thread-safe and
/// librdkafka calls `sasl_client_new` from each client's broker threads.
static INITIALISED: OnceLock<c_int> = OnceLock::new();

#[allow(unsafe_code)]
extern "C" {
    fn __real_sasl_client_init(callbacks: *const c_void) -> c_int;
    fn __real_sasl_client_new(
        service: *const c_char,
        server_fqdn: *const c_char,
        ip_local_port: *const c_char,
        ip_remote_port: *const c_char,
        callbacks: *const c_void,
        flags: c_uint,
        connection: *mut *mut c_void,
    ) -> c_int;
}

// The symbols' names are the linker's `--wrap` contract; nothing else in the process defines them.
/// librdkafka's eager call, always with no global callbacks (librdkafka's own are given per
/// connection), so the real call below loses nothing by passing none either.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn __wrap_sasl_client_init(_callbacks: *const c_void) -> c_int {
    SASL_OK
}

/// # Safety
/// Cyrus's `sasl_client_new` contract: the caller's strings, callbacks and out pointer.
#[allow(unsafe_code)]
#[no_mangle]
pub unsafe extern "C" fn __wrap_sasl_client_new(
    service: *const c_char,
    server_fqdn: *const c_char,
    ip_local_port: *const c_char,
    ip_remote_port: *const c_char,
    callbacks: *const c_void,
    flags: c_uint,
    connection: *mut *mut c_void,
) -> c_int {
    // SAFETY: Cyrus's global initialisation with no global callbacks, once per process.
    let initialised =
        *INITIALISED.get_or_init(|| unsafe { __real_sasl_client_init(std::ptr::null()) });
    if initialised != SASL_OK {
        // librdkafka reports the code's text as the reason the connection failed.
        return initialised;
    }
    // SAFETY: the caller's arguments, passed on unchanged.
    unsafe {
        __real_sasl_client_new(
            service,
            server_fqdn,
            ip_local_port,
            ip_remote_port,
            callbacks,
            flags,
            connection,
        )
    }
}
