//! A pool of ready workers for `index.js`'s `Pool`: started off Node's
//! thread, each checkout a session on a fresh worker.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::{Env, Function, Object, Unknown};
use napi_derive::napi;
use serde_json::Value as Json;
use stockade::Error;

use crate::errors;
use crate::options::session_options;
use crate::session::{resolve_session, spawn};

/// A pool of ready workers (`stockade::Pool`), or why it did not start.
#[napi]
pub struct NativePool {
    pool: Result<Arc<stockade::Pool>, Error>,
    /// Its sessions' `max_host_wait`.
    max_host_wait: Duration,
}

impl std::fmt::Debug for NativePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativePool").finish_non_exhaustive()
    }
}

/// Starts a pool of `size` workers for `language` with `options`;
/// resolves to the pool, whose `failure()` says why if it did not start.
#[napi(ts_return_type = "Promise<NativePool>")]
pub fn open_pool<'env>(
    env: &'env Env,
    language: String,
    options: Json,
    size: u32,
) -> napi::Result<Object<'env>> {
    let options = session_options(&language, &options).map_err(napi::Error::from_reason)?;
    let max_host_wait = options.max_host_wait;
    let (deferred, promise) = env.create_deferred()?;
    spawn(move || {
        let shape = stockade::PoolOptions {
            size: usize::try_from(size).unwrap_or(usize::MAX).max(1),
            ..Default::default()
        };
        let pool = stockade::Pool::new(options, shape).map(Arc::new);
        deferred.resolve(move |_| {
            Ok(NativePool {
                pool,
                max_host_wait,
            })
        });
    })?;
    Ok(promise)
}

#[napi]
impl NativePool {
    /// Why the pool did not start, as an error envelope; null if it did.
    #[napi]
    pub fn failure(&self) -> Option<Json> {
        self.pool.as_ref().err().map(errors::to_json)
    }

    /// A fresh worker's session, whose host functions `dispatch` answers.
    #[napi(ts_return_type = "Promise<NativeSession>")]
    pub fn checkout<'env>(
        &self,
        env: &'env Env,
        dispatch: Function<'_, (String, String), Unknown<'static>>,
    ) -> napi::Result<Object<'env>> {
        let pool = self.pool.clone();
        resolve_session(env, dispatch, self.max_host_wait, move || {
            pool.and_then(|pool| pool.checkout())
        })
    }

    /// Ends the idle workers; checked-out sessions go on.
    #[napi]
    pub fn close(&self) {
        if let Ok(pool) = &self.pool {
            pool.close();
        }
    }
}
