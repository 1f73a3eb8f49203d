//! `twins!`: a sealed trait of twins written as rows, each twin's signature once.
//!
//! A row is the twin's signature as burn's, with `try_` in front and its `Result` implied (a
//! future's output, for an async twin), after its docs (or a family's doc template, a macro that
//! takes the signature and puts its docs on it); then, for a tensor twin, `=> burn_method` and
//! either the rules and burn's call, or a body:
//!
//! ```text
//! twins! {
//!     /// Fallible twins of ...
//!     pub trait TryTensor<const D: usize, K: Basic> for Tensor<D, K> {
//!         /// Fallible twin of [`Tensor::swap_dims`]. ...
//!         #[doc(alias = "swap_dims")]
//!         fn try_swap_dims(self, dim1: impl AsIndex, dim2: impl AsIndex) -> Self => swap_dims {
//!             let dim1 = check::dim(OP, dim1.as_index(), D)?;
//!             ...
//!         }
//!         /// Fallible twin of [`Tensor::dot`]. ...
//!         fn try_dot(self, other: Self) -> Self => dot(other) [binary_ew(&self, &other, Output::Operands)];
//!         scalar_doc!("add_scalar", "") fn try_add_scalar<E: ElementConversion>(self, other: E) -> Self
//!         where K: Numeric => add_scalar { scalar!(self.add_scalar(other)) }
//!     }
//! }
//! ```
//!
//! Each row becomes the trait's method, with its docs, and the impl's, whose body defines
//! `OP`, the burn method's name, then runs either the body or the rules (each a call to which
//! `OP` is prepended, `rule(args)` running `rule(OP, args)?`) and burn's method under the
//! backstop; `(..)` passes the twin's arguments as they are. A `#[cfg(..)]` written first goes
//! on both. A layer's trait (`pub trait TryLinear for Linear = "linear"`, `nn/layers/`) names
//! one op for every row and seals its module here, and its rows' outputs go through the check
//! written before the traits (`checked by path;`: anomaly mode; called as
//! `path(OP, self, result)`, every layer row taking `&self`).
//!
//! The macro reads a trait row by row and a row part by part, one expansion each, so a trait of
//! 40 rows nests about 200 expansions: hence the crate's `recursion_limit`.

/// See [the module](self).
macro_rules! twins {
    () => {};
    // A layer's traits: one op each, the module sealed here, every output checked.
    (checked by $checked:path;) => {};
    (
        checked by $checked:path;
        $(#[$doc:meta])*
        pub trait $trait:ident for $module:ident = $op:literal { $($rows:tt)* }
        $($more:tt)*
    ) => {
        impl Sealed for $module {}

        $crate::tensor::twins!(@rows
            [[$(#[$doc])*] [pub trait $trait: Sealed] [impl $trait for $module] [$op] [$checked]]
            [] [] $($rows)*);
        $crate::tensor::twins!(checked by $checked; $($more)*);
    };
    // A tensor family's traits, by their generics: each row names its burn method, its op.
    (
        $(#[$doc:meta])*
        pub trait $trait:ident<const $d:ident: usize, $k:ident: $kb:ident> for $ty:ty
            $(where $wk:ident: $wl:lifetime)? { $($rows:tt)* }
        $($more:tt)*
    ) => {
        $crate::tensor::twins!(@rows [[$(#[$doc])*]
            [pub trait $trait<const $d: usize, $k: $kb>: Sealed + Sized]
            [impl<const $d: usize, $k: $kb> $trait<$d, $k> for $ty $(where $wk: $wl)?] [] []]
            [] [] $($rows)*);
        $crate::tensor::twins!($($more)*);
    };
    (
        $(#[$doc:meta])*
        pub trait $trait:ident<const $d:ident: usize> for $ty:ty { $($rows:tt)* }
        $($more:tt)*
    ) => {
        $crate::tensor::twins!(@rows [[$(#[$doc])*]
            [pub trait $trait<const $d: usize>: Sealed + Sized]
            [impl<const $d: usize> $trait<$d> for $ty] [] []]
            [] [] $($rows)*);
        $crate::tensor::twins!($($more)*);
    };
    (
        $(#[$doc:meta])*
        pub trait $trait:ident<$k:ident: $kb:ident> for $ty:ty { $($rows:tt)* }
        $($more:tt)*
    ) => {
        $crate::tensor::twins!(@rows [[$(#[$doc])*]
            [pub trait $trait<$k: $kb>: Sealed + Sized] [impl<$k: $kb> $trait<$k> for $ty] [] []]
            [] [] $($rows)*);
        $crate::tensor::twins!($($more)*);
    };
    (
        $(#[$doc:meta])*
        pub trait $trait:ident for $ty:ty { $($rows:tt)* }
        $($more:tt)*
    ) => {
        $crate::tensor::twins!(@rows [[$(#[$doc])*]
            [pub trait $trait: Sealed + Sized] [impl $trait for $ty] [] []]
            [] [] $($rows)*);
        $crate::tensor::twins!($($more)*);
    };

    // Every row read: the trait, then its impl.
    (@rows [[$($doc:tt)*] [$($decl:tt)*] [$($impl:tt)*] $op:tt $checked:tt]
        [$($sigs:tt)*] [$($fns:tt)*]) => {
        $($doc)*
        $($decl)* {
            $($sigs)*
        }

        $($impl)* {
            $($fns)*
        }
    };
    // A row's start: its docs (after a `cfg`, which goes on both methods) or its doc template,
    // then `fn name`.
    (@rows $h:tt $s:tt $f:tt #[cfg($($cfg:tt)*)] $(#[$doc:meta])* fn $name:ident $($rest:tt)*) => {
        $crate::tensor::twins!(@sig $h $s $f [[#[cfg($($cfg)*)]] [$(#[$doc])*] [] $name]
            $($rest)*);
    };
    (@rows $h:tt $s:tt $f:tt $(#[$doc:meta])* fn $name:ident $($rest:tt)*) => {
        $crate::tensor::twins!(@sig $h $s $f [[] [$(#[$doc])*] [] $name] $($rest)*);
    };
    (@rows $h:tt $s:tt $f:tt $template:ident!($($args:tt)*) fn $name:ident $($rest:tt)*) => {
        $crate::tensor::twins!(@sig $h $s $f [[] [] [$template($($args)*)] $name] $($rest)*);
    };
    // The generics (every token up to the arguments: a generic list holds no parentheses).
    (@sig $h:tt $s:tt $f:tt $row:tt ($($args:tt)*) $($rest:tt)*) => {
        $crate::tensor::twins!(@out $h $s $f $row [] ($($args)*) $($rest)*);
    };
    // The common lengths first (`<T>`, `<I: AsIndex>`, `<const N: usize>`, `<E: A + B>`).
    (@sig $h:tt $s:tt $f:tt $row:tt $t0:tt $t1:tt $t2:tt ($($args:tt)*) $($rest:tt)*) => {
        $crate::tensor::twins!(@out $h $s $f $row [$t0 $t1 $t2] ($($args)*) $($rest)*);
    };
    (@sig $h:tt $s:tt $f:tt $row:tt $t0:tt $t1:tt $t2:tt $t3:tt $t4:tt ($($args:tt)*) $($rest:tt)*) => {
        $crate::tensor::twins!(@out $h $s $f $row [$t0 $t1 $t2 $t3 $t4] ($($args)*) $($rest)*);
    };
    (@sig $h:tt $s:tt $f:tt $row:tt $t0:tt $t1:tt $t2:tt $t3:tt $t4:tt $t5:tt ($($args:tt)*) $($rest:tt)*) => {
        $crate::tensor::twins!(@out $h $s $f $row [$t0 $t1 $t2 $t3 $t4 $t5] ($($args)*) $($rest)*);
    };
    (@sig $h:tt $s:tt $f:tt $row:tt $t0:tt $t1:tt $t2:tt $t3:tt $t4:tt $t5:tt $t6:tt ($($args:tt)*) $($rest:tt)*) => {
        $crate::tensor::twins!(@out $h $s $f $row [$t0 $t1 $t2 $t3 $t4 $t5 $t6] ($($args)*) $($rest)*);
    };
    (@sig $h:tt $s:tt $f:tt $row:tt $($gen:tt)+) => {
        $crate::tensor::twins!(@generics $h $s $f $row [] $($gen)+);
    };
    (@generics $h:tt $s:tt $f:tt $row:tt [$($gen:tt)*] ($($args:tt)*) $($rest:tt)*) => {
        $crate::tensor::twins!(@out $h $s $f $row [$($gen)*] ($($args)*) $($rest)*);
    };
    (@generics $h:tt $s:tt $f:tt $row:tt [$($gen:tt)*] $next:tt $($rest:tt)*) => {
        $crate::tensor::twins!(@generics $h $s $f $row [$($gen)* $next] $($rest)*);
    };
    // The output, in a `Result` (a future's output, for a future), then the where clause.
    (@out $h:tt $s:tt $f:tt $row:tt $gen:tt $args:tt
        -> impl Future<Output = $out:ty> $(+ $bound:ident)* $(where $wk:ident: $wb:ident)?
        => $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row [$gen $args
            [impl Future<Output = $crate::error::Result<$out>> $(+ $bound)*]
            [$(where $wk: $wb)?]] => $($rest)*);
    };
    (@out $h:tt $s:tt $f:tt $row:tt $gen:tt $args:tt
        -> impl Future<Output = $out:ty> $(+ $bound:ident)* { $($body:tt)* } $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row [$gen $args
            [impl Future<Output = $crate::error::Result<$out>> $(+ $bound)*] []]
            { $($body)* } $($rest)*);
    };
    (@out $h:tt $s:tt $f:tt $row:tt $gen:tt $args:tt -> $out:ty { $($body:tt)* }
        $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row [$gen $args [$crate::error::Result<$out>] []]
            { $($body)* } $($rest)*);
    };
    (@out $h:tt $s:tt $f:tt $row:tt $gen:tt $args:tt -> $out:ty => $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row [$gen $args [$crate::error::Result<$out>] []]
            => $($rest)*);
    };
    (@out $h:tt $s:tt $f:tt $row:tt $gen:tt $args:tt -> $out:ty where $wk:ident: $wb:ident
        => $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row
            [$gen $args [$crate::error::Result<$out>] [where $wk: $wb]] => $($rest)*);
    };
    (@out $h:tt $s:tt $f:tt $row:tt $gen:tt $args:tt -> $out:ty where $($rest:tt)*) => {
        $crate::tensor::twins!(@where $h $s $f $row [$gen $args [$crate::error::Result<$out>]]
            [] $($rest)*);
    };
    (@where $h:tt $s:tt $f:tt $row:tt [$($sig:tt)*] [$($where:tt)*] => $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row [$($sig)* [where $($where)*]] => $($rest)*);
    };
    (@where $h:tt $s:tt $f:tt $row:tt [$($sig:tt)*] [$($where:tt)*] { $($body:tt)* }
        $($rest:tt)*) => {
        $crate::tensor::twins!(@tail $h $s $f $row [$($sig)* [where $($where)*]]
            { $($body)* } $($rest)*);
    };
    (@where $h:tt $s:tt $f:tt $row:tt $sig:tt [$($where:tt)*] $next:tt $($rest:tt)*) => {
        $crate::tensor::twins!(@where $h $s $f $row $sig [$($where)* $next] $($rest)*);
    };
    // The row's end: burn's method after its rules, a body under burn's method's name, or a
    // body under the trait's op (a layer's), or none (a twin that delegates).
    (@tail $h:tt [$($sigs:tt)*] [$($fns:tt)*] $row:tt $sig:tt
        => $burn:ident($($call:tt)*) [$($rules:tt)*]; $($rest:tt)*) => {
        $crate::tensor::twins!(@rows $h
            [$($sigs)* $crate::tensor::twins!(@decl $row $sig);]
            [$($fns)* $crate::tensor::twins!(@fn $h $row $sig [$burn]
                $crate::tensor::twins!(@call $burn($($call)*) [$($rules)*] $sig));]
            $($rest)*);
    };
    (@tail $h:tt [$($sigs:tt)*] [$($fns:tt)*] $row:tt $sig:tt
        => $burn:ident { $($body:tt)* } $($rest:tt)*) => {
        $crate::tensor::twins!(@rows $h
            [$($sigs)* $crate::tensor::twins!(@decl $row $sig);]
            [$($fns)* $crate::tensor::twins!(@fn $h $row $sig [$burn] { $($body)* });]
            $($rest)*);
    };
    (@tail $h:tt [$($sigs:tt)*] [$($fns:tt)*] $row:tt $sig:tt { $($body:tt)* } $($rest:tt)*) => {
        $crate::tensor::twins!(@rows $h
            [$($sigs)* $crate::tensor::twins!(@decl $row $sig);]
            [$($fns)* $crate::tensor::twins!(@fn $h $row $sig [] { $($body)* });]
            $($rest)*);
    };
    // The trait's method: its docs, or its template's.
    (@decl [[$($cfg:tt)*] [$($doc:tt)*] [] $name:ident]
        [[$($gen:tt)*] ($($args:tt)*) [$($out:tt)*] [$($where:tt)*]]) => {
        $($cfg)* $($doc)* fn $name $($gen)* ($($args)*) -> $($out)* $($where)*;
    };
    (@decl [[$($cfg:tt)*] [] [$template:ident($($targs:tt)*)] $name:ident]
        [[$($gen:tt)*] ($($args:tt)*) [$($out:tt)*] [$($where:tt)*]]) => {
        $template! { $($targs)*; fn $name $($gen)* ($($args)*) -> $($out)* $($where)*; }
    };
    // The impl's method: `OP` (the trait's op, else burn's method's name), then the body; a
    // layer's output checked. The body runs in a closure so that every refusal, from a rule's
    // `?` too, leaves through `traced_call` (a backtrace, when they are asked for); a future's
    // output leaves through `traced` where it is awaited.
    (@fn [$docs:tt $decl:tt $impl:tt [$($op:literal)?] []] [[$($cfg:tt)*] $x:tt $y:tt $name:ident]
        [[$($gen:tt)*] ($($args:tt)*) [impl Future $($fut:tt)*] [$($where:tt)*]]
        [$($burn:ident)?] $body:expr) => {
        $($cfg)*
        fn $name $($gen)* ($($args)*) -> impl Future $($fut)* $($where)* {
            $(
                #[allow(dead_code)]
                const OP: &str = stringify!($burn);
            )?
            let future = $body;
            async move { $crate::error::traced(future.await) }
        }
    };
    (@fn [$docs:tt $decl:tt $impl:tt [$($op:literal)?] []] [[$($cfg:tt)*] $x:tt $y:tt $name:ident]
        [[$($gen:tt)*] ($($args:tt)*) [$($out:tt)*] [$($where:tt)*]] [$($burn:ident)?]
        $body:expr) => {
        $($cfg)*
        fn $name $($gen)* ($($args)*) -> $($out)* $($where)* {
            $(
                // A body that delegates to another twin does not name its op.
                #[allow(dead_code)]
                const OP: &str = stringify!($burn);
            )?
            $crate::error::traced_call(move || -> $($out)* { $body })
        }
    };
    (@fn [$docs:tt $decl:tt $impl:tt [$op:literal] [$checked:path]]
        [[$($cfg:tt)*] $x:tt $y:tt $name:ident]
        [[$($gen:tt)*] ($($args:tt)*) [$($out:tt)*] [$($where:tt)*]] [$($burn:ident)?]
        $body:expr) => {
        $($cfg)*
        fn $name $($gen)* ($($args)*) -> $($out)* $($where)* {
            // A body that delegates to another twin does not name its op.
            #[allow(dead_code)]
            const OP: &str = $op;
            $crate::error::traced_call(move || -> $($out)* {
                let result: $($out)* = $body;
                $checked(OP, $crate::tensor::twins!(@layer $($args)*), result)
            })
        }
    };
    // A layer row's module: its receiver (`&self`), for the check to name it.
    (@layer & $this:ident $($rest:tt)*) => {
        $this
    };
    // A rule row's body: the rules, then burn's method under the backstop.
    (@call $burn:ident(..) [$($($rule:ident)::+($($arg:expr),*)),*]
        [$gen:tt ($(&)? $this:ident $(, $param:ident: $ty:ty)*) $out:tt $where:tt]) => {{
        $($($rule)::+(OP, $($arg),*)?;)*
        $crate::panic::catch(OP, || $this.$burn($($param),*))
    }};
    (@call $burn:ident($($call:expr),*) [$($($rule:ident)::+($($arg:expr),*)),*]
        [$gen:tt ($(&)? $this:ident $($params:tt)*) $out:tt $where:tt]) => {{
        $($($rule)::+(OP, $($arg),*)?;)*
        $crate::panic::catch(OP, || $this.$burn($($call),*))
    }};
}

pub(crate) use twins;
