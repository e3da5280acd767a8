//! Binds the REST listeners (Java's `listeners` and `admin.listeners`, `http://` and
//! `https://`) and serves until the shutdown token fires.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use openssl::ssl::{Ssl, SslAcceptor};
use tokio_util::sync::CancellationToken;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("unsupported listener {0}: listeners are http://host:port or https://host:port")]
    Listener(String),
    #[error("could not listen on {addr}: {cause}")]
    Bind { addr: String, cause: std::io::Error },
    #[error("{0}")]
    Tls(String),
}

/// A listener URI split into scheme and address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerAddr {
    pub https: bool,
    pub addr: SocketAddr,
}

/// Parses a Java listener URI (`http://:8083`, `https://0.0.0.0:8443`, `http://localhost:8083`).
pub fn parse_listener(listener: &str) -> Result<SocketAddr, ServeError> {
    parse_listener_addr(listener).map(|l| l.addr)
}

pub fn parse_listener_addr(listener: &str) -> Result<ListenerAddr, ServeError> {
    let bad = || ServeError::Listener(listener.to_owned());
    let trimmed = listener.trim();
    // The protocol is case-insensitive, as in Java.
    let (scheme, rest) = trimmed.split_once("://").ok_or_else(bad)?;
    let https = match scheme.to_ascii_lowercase().as_str() {
        "https" => true,
        "http" => false,
        _ => return Err(bad()),
    };
    let (host, port) = rest.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.trim_end_matches('/').parse().map_err(|_| bad())?;
    let host = match host {
        "" | "0.0.0.0" => "0.0.0.0",
        "localhost" => "127.0.0.1",
        h => h,
    };
    let addr = format!("{host}:{port}").parse().map_err(|_| bad())?;
    Ok(ListenerAddr { https, addr })
}

/// Which sockets to serve and with which TLS contexts.
#[derive(Default)]
pub struct ListenerPlan {
    pub listeners: Vec<String>,
    /// Java's `admin.listeners`: `None` serves the admin endpoints on every listener, an empty
    /// list nowhere, otherwise only on these.
    pub admin_listeners: Option<Vec<String>>,
    /// For `https://` listeners: `listeners.https.ssl.*`, else the worker's `ssl.*`.
    pub tls: Option<Arc<SslAcceptor>>,
    /// For `https://` admin listeners: `admin.listeners.https.ssl.*`, else the worker's `ssl.*`.
    pub admin_tls: Option<Arc<SslAcceptor>>,
    /// `ferry.metrics.listeners`: plain HTTP listeners serving only `GET /metrics`.
    pub metrics_listeners: Vec<String>,
    /// Strimzi's metrics reporter in `metric.reporters`: its listener, serving `GET /metrics`
    /// under the reporter's names, and its allowlist.
    pub strimzi_reporter: Option<(String, Arc<regex::Regex>)>,
}

fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The SSL settings of the worker's REST client (Java's `RestClient`: `listeners.https.ssl.*`,
/// else the worker's `ssl.*`).
pub fn client_ssl(props: &ferry_api::ConfigMap) -> Option<ferry_tls::JavaSsl> {
    ssl_scope(props, "listeners.https.")
}

/// The scope Java's `valuesWithPrefixAllOrNothing` picks: the prefixed keys if any, else the
/// worker's top-level `ssl.*`.
fn ssl_scope(props: &ferry_api::ConfigMap, prefix: &str) -> Option<ferry_tls::JavaSsl> {
    ferry_tls::JavaSsl::with_prefix(props, prefix)
        .or_else(|| ferry_tls::JavaSsl::with_prefix(props, ""))
}

impl ListenerPlan {
    /// The worker's listeners; TLS material is read now, so a bad store stops start-up.
    pub fn from_worker(
        props: &ferry_api::ConfigMap,
        listeners: &[String],
    ) -> Result<Self, ServeError> {
        let listeners = if listeners.is_empty() {
            vec!["http://:8083".to_owned()]
        } else {
            listeners.to_vec()
        };
        let admin_listeners = props.get("admin.listeners").map(|v| list(v));
        let acceptor = |prefix: &str, key: &str| -> Result<Arc<SslAcceptor>, ServeError> {
            let ssl = ssl_scope(props, prefix).ok_or_else(|| {
                ServeError::Tls(format!("{key} has an https:// listener but no ssl.keystore settings ({prefix}ssl.* or ssl.*)"))
            })?;
            for unsupported in ssl.jsse_only_keys() {
                tracing::warn!(
                    key = unsupported,
                    listeners = key,
                    "This REST TLS setting is read only by Java's JSSE and is ignored; OpenSSL negotiates TLS 1.2/1.3 with Mozilla's intermediate ciphers"
                );
            }
            ssl.acceptor()
                .map(Arc::new)
                .map_err(|why| ServeError::Tls(format!("{key}: {why}")))
        };
        let any_https = |l: &[String]| -> Result<bool, ServeError> {
            for listener in l {
                if parse_listener_addr(listener)?.https {
                    return Ok(true);
                }
            }
            Ok(false)
        };
        let tls = if any_https(&listeners)? {
            Some(acceptor("listeners.https.", "listeners")?)
        } else {
            None
        };
        let admin_tls = match &admin_listeners {
            Some(admin) if any_https(admin)? => {
                Some(acceptor("admin.listeners.https.", "admin.listeners")?)
            }
            _ => None,
        };
        let metrics_listeners = props
            .get(ferry_runtime::metrics::METRICS_LISTENERS)
            .map(|v| list(v))
            .unwrap_or_default();
        for listener in &metrics_listeners {
            if parse_listener_addr(listener)?.https {
                return Err(ServeError::Listener(format!(
                    "{listener} ({}: metrics listeners are http:// only; use an https:// REST listener for /metrics over TLS)",
                    ferry_runtime::metrics::METRICS_LISTENERS
                )));
            }
        }
        let strimzi_reporter = match ferry_runtime::metrics::strimzi_reporter::listener(props) {
            Some(listener) => {
                if parse_listener_addr(&listener)?.https {
                    return Err(ServeError::Listener(format!(
                        "{listener} ({}: the reporter's listener is http:// only)",
                        ferry_runtime::metrics::strimzi_reporter::LISTENER
                    )));
                }
                let allow = ferry_runtime::metrics::strimzi_reporter::allowlist(props)
                    .map_err(ServeError::Listener)?;
                Some((listener, Arc::new(allow)))
            }
            None => None,
        };
        Ok(ListenerPlan {
            listeners,
            admin_listeners,
            tls,
            admin_tls,
            metrics_listeners,
            strimzi_reporter,
        })
    }
}

/// Admin listeners serve only `/admin/…`.
async fn admin_only(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request.uri().path().starts_with("/admin") {
        next.run(request).await
    } else {
        axum::response::IntoResponse::into_response(crate::error::ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "HTTP 404 Not Found",
        ))
    }
}

/// Binds every listener now (so a taken port fails start-up) and serves in the background;
/// answers the bound addresses in order (listeners, then admin listeners, then metrics
/// listeners).
pub async fn serve(
    state: crate::AppState,
    plan: &ListenerPlan,
    shutdown: CancellationToken,
) -> Result<(Vec<SocketAddr>, tokio::task::JoinHandle<()>), ServeError> {
    let separate_admin = plan.admin_listeners.as_ref().is_some_and(|a| !a.is_empty());
    let main_state = crate::AppState {
        loggers: if separate_admin {
            None
        } else {
            state.loggers.clone()
        },
        ..state.clone()
    };
    let main_app = crate::service(main_state);
    let metrics_app = crate::metrics_service(state.clone());
    let mut bound = Vec::new();
    let mut servers = tokio::task::JoinSet::new();
    for listener in &plan.listeners {
        let (addr, task) = bind(
            listener,
            main_app.clone(),
            plan.tls.clone(),
            shutdown.clone(),
        )
        .await?;
        bound.push(addr);
        servers.spawn(task);
    }
    if separate_admin {
        let admin_app = crate::service_with(state.clone(), |router| {
            router.layer(axum::middleware::from_fn(admin_only))
        });
        for listener in plan.admin_listeners.iter().flatten() {
            let (addr, task) = bind(
                listener,
                admin_app.clone(),
                plan.admin_tls.clone(),
                shutdown.clone(),
            )
            .await?;
            bound.push(addr);
            servers.spawn(task);
        }
    }
    if !plan.metrics_listeners.is_empty() {
        for listener in &plan.metrics_listeners {
            let (addr, task) = bind(listener, metrics_app.clone(), None, shutdown.clone()).await?;
            bound.push(addr);
            servers.spawn(task);
        }
    }
    if let Some((listener, allow)) = &plan.strimzi_reporter {
        let app = crate::strimzi_reporter_service(state.clone(), allow.clone());
        let (addr, task) = bind(listener, app, None, shutdown.clone()).await?;
        bound.push(addr);
        servers.spawn(task);
    }
    let handle = tokio::spawn(async move { while servers.join_next().await.is_some() {} });
    Ok((bound, handle))
}

/// Binds a dedicated MirrorMaker node's internal REST listeners now (the flows' workers
/// advertise them) and serves the flows' worker-to-worker endpoints as they are added.
pub async fn serve_mirror_internal(
    flows: crate::mirror_internal::MirrorFlows,
    plan: &ListenerPlan,
    shutdown: CancellationToken,
) -> Result<(Vec<SocketAddr>, tokio::task::JoinHandle<()>), ServeError> {
    let app = crate::mirror_internal::service(flows);
    let mut bound = Vec::new();
    let mut servers = tokio::task::JoinSet::new();
    for listener in &plan.listeners {
        let (addr, task) = bind(listener, app.clone(), plan.tls.clone(), shutdown.clone()).await?;
        bound.push(addr);
        servers.spawn(task);
    }
    let handle = tokio::spawn(async move { while servers.join_next().await.is_some() {} });
    Ok((bound, handle))
}

type Served = Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

async fn bind(
    listener: &str,
    app: crate::Service,
    tls: Option<Arc<SslAcceptor>>,
    shutdown: CancellationToken,
) -> Result<(SocketAddr, Served), ServeError> {
    let ListenerAddr { https, addr } = parse_listener_addr(listener)?;
    let socket = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|cause| ServeError::Bind {
            addr: addr.to_string(),
            cause,
        })?;
    let local = socket.local_addr().map_err(|cause| ServeError::Bind {
        addr: addr.to_string(),
        cause,
    })?;
    tracing::info!(bound = %local, https, "REST server listening");
    let served: Served = match (https, tls) {
        (false, _) => Box::pin(async move {
            let result = axum::serve(socket, axum::ServiceExt::into_make_service(app))
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
            if let Err(error) = result {
                tracing::error!(%error, "REST server failed");
            }
        }),
        (true, Some(acceptor)) => Box::pin(serve_tls(socket, app, acceptor, shutdown)),
        (true, None) => return Err(ServeError::Tls(format!("{listener}: no TLS settings"))),
    };
    Ok((local, served))
}

/// Accepts TLS connections and serves HTTP/1.1 and HTTP/2 on them.
async fn serve_tls(
    socket: tokio::net::TcpListener,
    app: crate::Service,
    acceptor: Arc<SslAcceptor>,
    shutdown: CancellationToken,
) {
    loop {
        let (tcp, peer) = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = socket.accept() => match accepted {
                Ok(a) => a,
                Err(error) => {
                    tracing::warn!(%error, "Could not accept a REST connection");
                    continue;
                }
            },
        };
        let (acceptor, app) = (acceptor.clone(), app.clone());
        tokio::spawn(async move {
            let Ok(ssl) = Ssl::new(acceptor.context()) else {
                return;
            };
            let Ok(mut stream) = tokio_openssl::SslStream::new(ssl, tcp) else {
                return;
            };
            if let Err(error) = Pin::new(&mut stream).accept().await {
                tracing::debug!(%peer, %error, "TLS handshake with a REST client failed");
                return;
            }
            let service = tower::ServiceExt::map_request(
                app,
                |r: axum::http::Request<hyper::body::Incoming>| r.map(axum::body::Body::new),
            );
            let result =
                hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new())
                    .serve_connection(
                        hyper_util::rt::TokioIo::new(stream),
                        hyper_util::service::TowerToHyperService::new(service),
                    )
                    .await;
            if let Err(error) = result {
                tracing::debug!(%peer, %error, "REST connection ended with an error");
            }
        });
    }
}
