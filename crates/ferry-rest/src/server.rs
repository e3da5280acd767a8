//! Binds the REST listener and serves until the shutdown token fires.

use std::net::SocketAddr;
use tokio_util::sync::CancellationToken;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("unsupported listener {0}: only http://host:port listeners are supported")]
    Listener(String),
    #[error("could not listen on {addr}: {cause}")]
    Bind { addr: String, cause: std::io::Error },
}

/// Parses a Java listener URI (`http://:8083`, `http://0.0.0.0:8083`, `http://localhost:8083`).
pub fn parse_listener(listener: &str) -> Result<SocketAddr, ServeError> {
    let bad = || ServeError::Listener(listener.to_owned());
    let rest = listener.strip_prefix("http://").ok_or_else(bad)?;
    let (host, port) = rest.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.trim_end_matches('/').parse().map_err(|_| bad())?;
    let host = match host {
        "" | "0.0.0.0" => "0.0.0.0",
        "localhost" => "127.0.0.1",
        h => h,
    };
    format!("{host}:{port}").parse().map_err(|_| bad())
}

/// Binds now (so a taken port fails start-up) and serves in the background.
pub async fn serve(
    state: crate::AppState,
    listener: &str,
    shutdown: CancellationToken,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), ServeError> {
    let addr = parse_listener(listener)?;
    let socket = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|cause| ServeError::Bind {
            addr: addr.to_string(),
            cause,
        })?;
    let bound = socket.local_addr().map_err(|cause| ServeError::Bind {
        addr: addr.to_string(),
        cause,
    })?;
    let app = crate::service(state);
    let handle = tokio::spawn(async move {
        let result = axum::serve(socket, axum::ServiceExt::into_make_service(app))
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await;
        if let Err(error) = result {
            tracing::error!(%error, "REST server failed");
        }
    });
    tracing::info!(%bound, "REST server listening");
    Ok((bound, handle))
}
