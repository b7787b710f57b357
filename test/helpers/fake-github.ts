/**
 * A local stand-in for the GitHub REST API and for a corporate proxy, both on 127.0.0.1 (tests never leave the
 * machine). The API answers from a route table; every request is recorded so tests can assert what was sent.
 */
import * as http from 'node:http'
import * as net from 'node:net'
import type { AddressInfo } from 'node:net'

export interface Recorded {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
}

export interface Reply {
  status: number
  body?: unknown
  /** Sent as-is instead of JSON (e.g. a proxy's HTML error page). */
  raw?: string
  headers?: Record<string, string>
}

/** `METHOD /path` (query ignored) → reply; a function sees the request and how often the route was hit. */
export type Route = Reply | ((req: Recorded, hit: number, base: string) => Reply)

export interface FakeApi {
  url: string
  port: number
  requests: Recorded[]
  routes: Map<string, Route>
  close(): Promise<void>
}

function send(res: http.ServerResponse, reply: Reply): void {
  const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body))
  res.writeHead(reply.status, {
    'content-type': reply.raw === undefined ? 'application/json; charset=utf-8' : 'text/html',
    ...reply.headers
  })
  res.end(text)
}

export async function startFakeApi(routes: Record<string, Route> = {}): Promise<FakeApi> {
  const table = new Map(Object.entries(routes))
  const requests: Recorded[] = []
  const hits = new Map<string, number>()
  let base = ''
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      // Decoded as GitHub does: `{ref}` = heads/main and `{path}` = a/b.json arrive as heads%2Fmain, a%2Fb.json.
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
      const rec = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8')
      }
      requests.push(rec)
      const key = `${rec.method} ${path}`
      const hit = (hits.get(key) ?? 0) + 1
      hits.set(key, hit)
      const route = table.get(key)
      if (!route) return send(res, { status: 404, body: { message: `no fake route for ${key}` } })
      send(res, typeof route === 'function' ? route(rec, hit, base) : route)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
  return {
    url: base,
    port,
    requests,
    routes: table,
    close: () => new Promise(resolve => server.close(() => resolve()))
  }
}

export interface FakeProxy {
  url: string
  /** `host:port` of every CONNECT the proxy received. */
  connects: string[]
  close(): Promise<void>
}

/**
 * An HTTP CONNECT proxy that tunnels every request to `upstreamPort` on 127.0.0.1, whatever host the client
 * asked for: the client may name a host that does not resolve, and the proxy still records it.
 */
export async function startFakeProxy(upstreamPort: number): Promise<FakeProxy> {
  const connects: string[] = []
  const sockets = new Set<net.Socket>()
  const server = http.createServer((_req, res) => {
    res.writeHead(405)
    res.end()
  })
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(req.url ?? '')
    const upstream = net.connect(upstreamPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => s.destroy())
      s.on('close', () => sockets.delete(s))
    }
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: () =>
      new Promise(resolve => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}
