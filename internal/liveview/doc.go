// Package liveview is the page a browser gets at GET / of either endpoint (Accept:
// text/html): blocks sealing and pre-confirmations arriving, in real time. The page is one
// embedded HTML file (go:embed; no build step) whose script opens the endpoint's own
// WebSocket, as any client would: newHeads on both endpoints, newFlashblocks on the
// pre-confirmed one. It parses and aggregates the notifications in a Web Worker and redraws
// at most a few times a second from the aggregate, so a chain at thousands of transactions
// a second does not make it unresponsive; it redials with backoff when the node goes away.
//
// The page's WebSocket sends the page's own origin (http://127.0.0.1:PORT), which is what
// --ws.origins allows by default; a page reached through another name needs that name in
// --http.vhosts and its origin in --ws.origins.
//
// It imports nothing from flashrpc. The handler is safe for concurrent use.
package liveview
