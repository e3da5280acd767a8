//! librdkafka calls `curl_global_init` when it creates its first client, for the OAUTHBEARER
//! OIDC token requests it may make one day. libcurl's global initialisation initialises OpenSSL
//! with everything: the configuration file, the built-in engines, every cipher and digest and the
//! error strings: 1.7 MiB of libcrypto's pages in a C program that does only that, and about
//! 0.8 MiB of an idle worker's RSS, in workers most of which never connect over TLS or ask a
//! token endpoint for anything.
//!
//! build.rs links the `ferry` binary with `--wrap=curl_global_init`, so librdkafka's call comes
//! here and does nothing. libcurl then initialises itself, under its own lock (a pthread mutex in
//! curl-sys's build), in the first `curl_easy_init`: when librdkafka makes its first token
//! request. OpenSSL initialises itself the same way at the first TLS connection.

use std::os::raw::{c_int, c_long};

/// CURLE_OK: librdkafka ignores the result, and curl's later initialisation reports its own
/// failure to the request that needs it.
const CURLE_OK: c_int = 0;

// The symbol's name is the linker's `--wrap` contract; nothing else in the process defines it.
#[allow(unsafe_code)]
#[no_mangle]
pub extern "C" fn __wrap_curl_global_init(_flags: c_long) -> c_int {
    CURLE_OK
}
