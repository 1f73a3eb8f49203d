#![doc = include_str!("../../MIGRATING.md")]
