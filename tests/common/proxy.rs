//! A TCP proxy on 127.0.0.1 in front of a real burn-remote server, which can stop forwarding
//! without closing anything: a server that froze, seen from its client. Included by the remote
//! fault tests with `#[path]`.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A TCP proxy on 127.0.0.1 in front of a real server that can stop forwarding without closing
/// anything: a server that froze, seen from the client.
pub struct FreezableProxy {
    address: SocketAddr,
    frozen: Arc<AtomicBool>,
    closed: Arc<AtomicBool>,
    sockets: Arc<Mutex<Vec<TcpStream>>>,
}

impl FreezableProxy {
    pub fn start(upstream: SocketAddr) -> Self {
        // A port no loopback server of this process had: burn-remote would reuse its dead session.
        let listener = burn_guard::devices::loopback_listener().unwrap();
        let proxy = Self {
            address: listener.local_addr().unwrap(),
            frozen: Arc::default(),
            closed: Arc::default(),
            sockets: Arc::default(),
        };
        let (frozen, closed, sockets) = (
            proxy.frozen.clone(),
            proxy.closed.clone(),
            proxy.sockets.clone(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if closed.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                {
                    let mut sockets = sockets.lock().unwrap();
                    sockets.push(client.try_clone().unwrap());
                    sockets.push(server.try_clone().unwrap());
                }
                for (from, to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    let (frozen, closed) = (frozen.clone(), closed.clone());
                    std::thread::spawn(move || pump(from, to, &frozen, &closed));
                }
            }
        });
        proxy
    }

    /// A proxy in front of the server listening at `address` (`ws://127.0.0.1:PORT`).
    pub fn in_front_of(address: &str) -> Self {
        let upstream: SocketAddr = address.trim_start_matches("ws://").parse().unwrap();
        Self::start(upstream)
    }

    pub fn address(&self) -> String {
        format!("ws://{}", self.address)
    }

    pub fn freeze(&self) {
        self.frozen.store(true, Ordering::SeqCst);
    }

    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for socket in self.sockets.lock().unwrap().drain(..) {
            let _ = socket.shutdown(Shutdown::Both);
        }
        // Wake the accept loop so that it sees `closed`.
        let _ = TcpStream::connect(self.address);
    }
}

impl Drop for FreezableProxy {
    fn drop(&mut self) {
        self.close();
    }
}

fn pump(mut from: TcpStream, mut to: TcpStream, frozen: &AtomicBool, closed: &AtomicBool) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        while frozen.load(Ordering::SeqCst) && !closed.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(5));
        }
        if closed.load(Ordering::SeqCst) || to.write_all(&buffer[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}
