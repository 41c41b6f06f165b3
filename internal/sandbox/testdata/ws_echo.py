# A WebSocket echo server in Python's standard library, for tests to run
# inside a sandbox (python3 ws_echo.py PORT): it upgrades any request carrying
# Upgrade: websocket, echoes every text and binary message (frame by frame),
# answers pings and close; anything else gets 400 with the request's head
# (its request line and headers) as the body. It prints "listening" once
# it accepts connections. (Used by internal/sandbox's and internal/api's tests.)
import base64, hashlib, socketserver, struct, sys
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
class H(socketserver.StreamRequestHandler):
    def frame(self, op, data):
        h = bytes([op])
        n = len(data)
        if n < 126: h += bytes([n])
        elif n < 65536: h += b"\x7e" + struct.pack(">H", n)
        else: h += b"\x7f" + struct.pack(">Q", n)
        self.wfile.write(h + data); self.wfile.flush()
    def handle(self):
        head = self.rfile.readline()
        hd = {}
        while True:
            l = self.rfile.readline()
            if l in (b"\r\n", b"\n", b""): break
            head += l
            k, _, v = l.decode("latin-1").partition(":")
            hd[k.strip().lower()] = v.strip()
        if hd.get("upgrade", "").lower() != "websocket":
            body = head
            self.wfile.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)); return
        acc = base64.b64encode(hashlib.sha1(hd["sec-websocket-key"].encode() + GUID).digest())
        self.wfile.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + acc + b"\r\n\r\n"); self.wfile.flush()
        while True:
            h = self.rfile.read(2)
            if len(h) < 2: return
            op, n = h[0] & 0x0f, h[1] & 0x7f
            if n == 126: n = struct.unpack(">H", self.rfile.read(2))[0]
            elif n == 127: n = struct.unpack(">Q", self.rfile.read(8))[0]
            mask = self.rfile.read(4) if h[1] & 0x80 else b"\0\0\0\0"
            data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(n)))
            if op == 8: self.frame(0x88, data[:2]); return
            if op == 9: self.frame(0x8a, data); continue
            if op == 10: continue
            self.frame(h[0] & 0x8f, data)
class S(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
s = S(("127.0.0.1", int(sys.argv[1])), H)
print("listening", flush=True)
s.serve_forever()
