//! The seccomp-bpf layer: [`policy`] says what the worker may call,
//! [`install`] compiles it, test-fires it in a throwaway child and applies it.

pub mod install;
pub mod policy;

pub use install::{install, narrow};
pub use policy::{KILLED, Policy, Profile, Target};
