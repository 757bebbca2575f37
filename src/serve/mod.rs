//! `castle serve`: the game in a browser, with the exact solver as its coach. A small HTTP
//! server (axum on tokio, the `serve` feature) that serves one page ([`PAGE`]) and the JSON
//! API of [`api`]; the page draws what the API sends and knows no rule.
//!
//! - [`api`]: the routes, free of HTTP: request JSON in, status and JSON out.
//! - `bench` (with the `cli` feature): `castle bench --coach`, the coach's answer times.
//! - [`coach`]: "still winnable", the hint, "no longer winnable: since move N", and the
//!   cache of decided positions the requests share.
//!
//! Every request is bounded: its body ([`Config::body_bytes`]), its solves (a node and time
//! budget, [`Config::coach_nodes`] and [`Config::coach_seconds`]), the solves in flight
//! ([`Config::solves`]; the next [`Config::queue`] wait for a place, the rest get 503 with
//! `Retry-After`), and the memory: the solves in flight share [`Config::memory_mib`] less
//! [`RESERVE_MIB`] for the server itself. No request names a file: a game is loaded and saved
//! as text in the request and the reply.

pub mod api;
#[cfg(feature = "cli")]
pub mod bench;
pub mod coach;

use crate::solver::{Limits, Solver};
use crate::{InputError, InputKind};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The page: one HTML file, its style and script inline.
pub const PAGE: &str = include_str!("page.html");

/// MiB of `--memory` kept for the server itself (its code, the cache of decided positions,
/// the requests being read and answered); the solves share the rest.
pub const RESERVE_MIB: usize = 64;

/// The least memory one solve gets, in MiB.
pub const MIN_SOLVE_MIB: usize = 16;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where it listens (port 0: one the system picks).
    pub addr: SocketAddr,
    /// MiB the whole server may use.
    pub memory_mib: usize,
    /// Solves in flight at once.
    pub solves: usize,
    /// Requests that wait for a solve's place; more get 503.
    pub queue: usize,
    /// Node budget of each request that solves.
    pub coach_nodes: u64,
    /// Time budget of each request that solves.
    pub coach_seconds: f64,
    /// The largest request body, in bytes.
    pub body_bytes: usize,
}

/// The largest request body by default: 1 MiB (a game of 10,000 moves is about 700 KB).
pub const BODY_BYTES: usize = 1 << 20;

impl Default for Config {
    fn default() -> Self {
        Config {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            memory_mib: 1024,
            solves: std::thread::available_parallelism().map_or(1, |n| n.get()),
            queue: 16,
            coach_nodes: 2_000_000,
            coach_seconds: 2.0,
            body_bytes: BODY_BYTES,
        }
    }
}

impl Config {
    /// The solver of one request: its budgets and its share of the memory.
    ///
    /// # Errors
    /// Budgets that do not fit: no solve, no memory left for the solves, no time.
    pub fn solver(&self) -> Result<Solver, InputError> {
        let bad = |m: String| InputError::new(InputKind::Usage, m);
        if self.solves == 0 {
            return Err(bad("--solves must be at least 1".into()));
        }
        let need = RESERVE_MIB + MIN_SOLVE_MIB * self.solves;
        if self.memory_mib < need {
            return Err(bad(format!(
                "--memory {} is too little for {} solves at once: give at least {need} MiB ({RESERVE_MIB} for the server, {MIN_SOLVE_MIB} a solve)",
                self.memory_mib, self.solves
            )));
        }
        if self.coach_nodes == 0 {
            return Err(bad("--coach-nodes must be at least 1".into()));
        }
        if self.coach_seconds.is_nan() || self.coach_seconds <= 0.0 {
            return Err(bad("--coach-seconds must be a positive number".into()));
        }
        let share = (self.memory_mib - RESERVE_MIB) / self.solves;
        Ok(Solver {
            limits: Limits {
                max_nodes: Some(self.coach_nodes),
                max_seconds: Some(self.coach_seconds),
                memory_bytes: share << 20,
            },
            ..Solver::default()
        })
    }
}

/// What the handlers share.
struct Shared {
    ctx: api::Context,
    gate: Semaphore,
    solves: usize,
    waiting: AtomicUsize,
    queue: usize,
    wait: Duration,
    body_bytes: usize,
}

/// Runs the server until Ctrl-C or SIGTERM; `started` is told the address it listens on.
///
/// # Errors
/// The budgets do not fit ([`Config::solver`]), or the address cannot be bound.
pub fn run(config: &Config, started: impl FnOnce(SocketAddr)) -> Result<(), crate::Error> {
    let solver = config.solver()?;
    let shared = Arc::new(Shared {
        ctx: api::Context {
            solver,
            cache: coach::Cache::default(),
        },
        gate: Semaphore::new(config.solves),
        solves: config.solves,
        waiting: AtomicUsize::new(0),
        queue: config.queue,
        // A request waits for a place at most as long as a few solves take.
        wait: Duration::from_secs_f64(config.coach_seconds.min(60.0) * 4.0 + 1.0),
        body_bytes: config.body_bytes,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(config.solves + 32)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| {
                InputError::new(
                    InputKind::Usage,
                    format!("cannot listen on {}: {e}", config.addr),
                )
            })?;
        started(listener.local_addr()?);
        let app = Router::new()
            .route("/", get(page))
            .route("/api/{route}", any(api_route))
            .fallback(not_found)
            .with_state(shared);
        axum::serve(listener, app)
            .with_graceful_shutdown(stopped())
            .await?;
        Ok(())
    })
}

/// Ctrl-C or SIGTERM.
async fn stopped() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(t) => t,
                Err(_) => return ctrl_c.await,
            };
        tokio::select! {
            () = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}

/// A JSON reply.
fn json_reply(status: u16, body: &serde_json::Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (status, body.to_string()).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn error(status: u16, kind: &str, message: impl Into<String>) -> Response {
    json_reply(status, &api::Reply::error(status, kind, message).body)
}

async fn page() -> Response {
    let mut r = PAGE.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

async fn not_found(uri: axum::http::Uri) -> Response {
    error(
        404,
        "route",
        format!(
            "no such page: {} (the page is /, the API under /api/)",
            crate::text::cut(uri.path())
        ),
    )
}

/// A page of another site may not use the API (the browser sends its `Origin`).
fn foreign_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin = origin.to_str().ok();
    match (origin, host) {
        (Some(o), Some(h)) => o != format!("http://{h}"),
        _ => true,
    }
}

async fn api_route(
    State(shared): State<Arc<Shared>>,
    route: Result<Path<String>, axum::extract::rejection::PathRejection>,
    method: Method,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Ok(Path(route)) = route else {
        return error(400, "route", "the route is not a name");
    };
    if foreign_origin(&headers) {
        return error(
            403,
            "origin",
            "requests from pages of other sites are refused",
        );
    }
    let reads = matches!(route.as_str(), "variants" | "health");
    let allowed = if reads { Method::GET } else { Method::POST };
    if method != allowed {
        let mut r = error(
            405,
            "method",
            format!(
                "/api/{} takes {allowed}, not {method}",
                crate::text::cut(&route)
            ),
        );
        r.headers_mut().insert(
            header::ALLOW,
            HeaderValue::from_static(if reads { "GET" } else { "POST" }),
        );
        return r;
    }
    if route == "health" {
        let running = shared.solves - shared.gate.available_permits();
        return json_reply(
            200,
            &serde_json::json!({
                "ok": true,
                "solves_running": running,
                "waiting": shared.waiting.load(Ordering::Relaxed),
                "cached_positions": shared.ctx.cache.len(),
            }),
        );
    }
    let limit = shared.body_bytes;
    let too_large = || {
        error(
            413,
            "request",
            format!("the request is larger than {limit} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large();
    }
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return too_large();
    };
    // The solving routes wait for a place among the solves in flight.
    let permit = if api::solves(&route) {
        match admit(&shared).await {
            Ok(p) => Some(p),
            Err(r) => return r,
        }
    } else {
        None
    };
    let work = Arc::clone(&shared);
    let done = tokio::task::spawn_blocking(move || api::handle(&work.ctx, &route, &bytes)).await;
    drop(permit);
    match done {
        Ok(reply) => json_reply(reply.status, &reply.body),
        Err(e) => error(
            500,
            "internal",
            format!("the request failed inside castle (a bug): {e}"),
        ),
    }
}

/// A place among the solves in flight: at once, or after waiting in the queue; a full
/// queue, or a wait too long, is 503 with `Retry-After`.
async fn admit(shared: &Shared) -> Result<tokio::sync::SemaphorePermit<'_>, Response> {
    let busy = || {
        let mut r = error(
            503,
            "busy",
            format!(
                "busy: {} solves running and {} waiting; try again in a moment",
                shared.solves, shared.queue
            ),
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        r
    };
    if let Ok(p) = shared.gate.try_acquire() {
        return Ok(p);
    }
    if shared.waiting.fetch_add(1, Ordering::SeqCst) >= shared.queue {
        shared.waiting.fetch_sub(1, Ordering::SeqCst);
        return Err(busy());
    }
    let got = tokio::time::timeout(shared.wait, shared.gate.acquire()).await;
    shared.waiting.fetch_sub(1, Ordering::SeqCst);
    match got {
        Ok(Ok(p)) => Ok(p),
        _ => Err(busy()),
    }
}
