package liveview

import (
	_ "embed"
	"html"
	"net/http"
	"strconv"
	"strings"
)

//go:embed page.html
var page string

// Config says which endpoint serves the page.
type Config struct {
	// Endpoint names the endpoint in the page's title ("standard", "pre-confirmed").
	Endpoint string
	// Pending is set on the pre-confirmed endpoint: the page subscribes to newFlashblocks
	// and shows the block in progress.
	Pending bool
}

// Handler serves the page. Its bytes are built once.
type Handler struct {
	body []byte
}

// New returns the page's handler for the endpoint cfg describes.
func New(cfg Config) *Handler {
	r := strings.NewReplacer(
		"{{ENDPOINT}}", html.EscapeString(cfg.Endpoint),
		"{{PENDING}}", strconv.FormatBool(cfg.Pending),
	)
	return &Handler{body: []byte(r.Replace(page))}
}

// ServeHTTP writes the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Length", strconv.Itoa(len(h.body)))
	hdr.Set("Cache-Control", "no-cache")
	// The page loads nothing from elsewhere: its script and styles are inline, its worker a
	// blob, its only connection the endpoint's own WebSocket.
	hdr.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline' blob:; worker-src blob:; style-src 'unsafe-inline'; connect-src 'self' ws: wss:; img-src data:; base-uri 'none'; form-action 'none'")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	w.Write(h.body)
}

// Wants reports whether r asks for a page: a GET of / whose Accept names text/html, as a
// browser's navigation does. Health checks, curl and JSON-RPC clients do not.
func Wants(r *http.Request) bool {
	return r.URL.Path == "/" && strings.Contains(r.Header.Get("Accept"), "text/html")
}
