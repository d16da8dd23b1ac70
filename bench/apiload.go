// apiload: a small, fast API client for the scale bench (make bench-e2e;
// tests/e2e/bench.py drives it). Standard library only, HTTP/2 where the
// API server offers it (kube-apiserver does over TLS), one connection
// shared by every worker as client-go shares one; with -http1, HTTP/1.1
// on a connection per worker (the shape of schedule's client).
//
//	apiload -server URL -token-file F [-workers 16] post < LINES
//	    LINES: "PATH<TAB>JSON" per line; each JSON body is POSTed to PATH.
//	    Creates nodes and pods far faster than the Python harness could.
//	apiload -server URL -token-file F [-workers 16] bind -namespace NS -scheduler NAME
//	    The API server's ceiling for a scheduler: every pending pod of NS
//	    for scheduler NAME gets a Binding and one Event, with no decision
//	    cost (round-robin over the nodes listed at the start); N workers
//	    post Bindings and N more post the Events of the bound pods.
//	apiload -server URL -token-file F [-workers 16] delete -namespace NS -resource pods|events
//	    Deletes every object of the resource in NS, N at a time, with no
//	    grace period (kube-apiserver deletes a collection one by one).
//
// Prints one line of counts on stdout; exits 1 when any request failed,
// naming the first failure on stderr.
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type client struct {
	server string
	token  string
	http   *http.Client
}

func newClient(server, tokenFile string, http1 bool) (*client, error) {
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 64,
	}
	if http1 {
		// A non-nil empty map turns the transport's HTTP/2 upgrade off.
		tr.ForceAttemptHTTP2 = false
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return &client{server: strings.TrimRight(server, "/"), token: strings.TrimSpace(string(tok)),
		http: &http.Client{Transport: tr, Timeout: 60 * time.Second}}, nil
}

func (c *client) do(method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(method, c.server+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: HTTP %d: %.300s", method, path, resp.StatusCode, out)
	}
	return out, nil
}

// run calls fn(i) for i in [0, n) on workers goroutines; the count of
// failures and the first error.
func run(n, workers int, fn func(i int) error) (int64, error) {
	var next, failed int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(atomic.AddInt64(&next, 1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					atomic.AddInt64(&failed, 1)
					once.Do(func() { first = err })
				}
			}
		}()
	}
	wg.Wait()
	return failed, first
}

func post(c *client, workers int) (int, int64, error) {
	type req struct {
		path string
		body []byte
	}
	var reqs []req
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		tab := strings.IndexByte(line, '\t')
		if tab <= 0 {
			return 0, 0, fmt.Errorf("stdin line %d: want PATH<TAB>JSON", ln)
		}
		reqs = append(reqs, req{line[:tab], []byte(line[tab+1:])})
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	failed, err := run(len(reqs), workers, func(i int) error {
		_, err := c.do("POST", reqs[i].path, reqs[i].body)
		return err
	})
	return len(reqs), failed, err
}

type meta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	UID       string `json:"uid"`
}

type list struct {
	Items []struct {
		Metadata meta `json:"metadata"`
	} `json:"items"`
}

func listNames(c *client, path string) ([]meta, error) {
	body, err := c.do("GET", path, nil)
	if err != nil {
		return nil, err
	}
	var l list
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, fmt.Errorf("GET %s: %v", path, err)
	}
	out := make([]meta, len(l.Items))
	for i, it := range l.Items {
		out[i] = it.Metadata
	}
	return out, nil
}

func bind(c *client, workers int, ns, scheduler string) (int, int64, error) {
	sel := url.QueryEscape("spec.nodeName=,spec.schedulerName=" + scheduler)
	pods, err := listNames(c, "/api/v1/namespaces/"+ns+"/pods?fieldSelector="+sel)
	if err != nil {
		return 0, 0, err
	}
	nodes, err := listNames(c, "/api/v1/nodes")
	if err != nil {
		return 0, 0, err
	}
	if len(nodes) == 0 {
		return 0, 0, fmt.Errorf("no nodes to bind to")
	}
	// As many Event posters as binders, fed as the Bindings succeed (the
	// shape of schedule's --bind-workers: a bind never waits for an Event).
	events := make(chan int, len(pods))
	var evFailed int64
	var evErr error
	var evOnce sync.Once
	var evWG sync.WaitGroup
	for w := 0; w < workers; w++ {
		evWG.Add(1)
		go func() {
			defer evWG.Done()
			for i := range events {
				if err := postEvent(c, ns, pods[i], nodes[i%len(nodes)].Name); err != nil {
					atomic.AddInt64(&evFailed, 1)
					evOnce.Do(func() { evErr = err })
				}
			}
		}()
	}
	failed, ferr := run(len(pods), workers, func(i int) error {
		p, node := pods[i], nodes[i%len(nodes)].Name
		b, _ := json.Marshal(map[string]interface{}{
			"apiVersion": "v1", "kind": "Binding",
			"metadata": map[string]string{"name": p.Name, "namespace": ns, "uid": p.UID},
			"target":   map[string]string{"apiVersion": "v1", "kind": "Node", "name": node},
		})
		if _, err := c.do("POST", "/api/v1/namespaces/"+ns+"/pods/"+p.Name+"/binding", b); err != nil {
			return err
		}
		events <- i
		return nil
	})
	close(events)
	evWG.Wait()
	if ferr == nil {
		ferr = evErr
	}
	return len(pods), failed + evFailed, ferr
}

func postEvent(c *client, ns string, p meta, node string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	e, _ := json.Marshal(map[string]interface{}{
		"apiVersion": "v1", "kind": "Event",
		"metadata": map[string]string{"generateName": p.Name + ".", "namespace": ns},
		"involvedObject": map[string]string{"apiVersion": "v1", "kind": "Pod",
			"name": p.Name, "namespace": ns, "uid": p.UID},
		"reason": "Scheduled", "type": "Normal", "count": 1,
		"message":        "Successfully assigned " + ns + "/" + p.Name + " to " + node,
		"source":         map[string]string{"component": "apiload-ceiling"},
		"firstTimestamp": now, "lastTimestamp": now,
	})
	_, err := c.do("POST", "/api/v1/namespaces/"+ns+"/events", e)
	return err
}

func deleteAll(c *client, workers int, ns, resource string) (int, int64, error) {
	base := "/api/v1/namespaces/" + ns + "/" + resource
	items, err := listNames(c, base)
	if err != nil {
		return 0, 0, err
	}
	failed, ferr := run(len(items), workers, func(i int) error {
		_, err := c.do("DELETE", base+"/"+items[i].Name+"?gracePeriodSeconds=0", nil)
		if err != nil && strings.Contains(err.Error(), "HTTP 404") {
			return nil // gone meanwhile
		}
		return err
	})
	return len(items), failed, ferr
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func main() {
	server := flag.String("server", "", "API server URL")
	tokenFile := flag.String("token-file", "", "file holding a bearer token")
	workers := flag.Int("workers", 16, "concurrent requests")
	ns := flag.String("namespace", "", "bind: the pods' namespace")
	scheduler := flag.String("scheduler", "", "bind: the pods' schedulerName")
	resource := flag.String("resource", "", "delete: pods or events")
	http1 := flag.Bool("http1", false, "HTTP/1.1, a connection per worker, instead of one HTTP/2 connection")
	flag.Parse()
	cmd := flag.Arg(0)
	// Flags may follow the command too.
	if err := flag.CommandLine.Parse(flag.Args()[min(1, flag.NArg()):]); err != nil {
		os.Exit(2)
	}
	if *server == "" || *tokenFile == "" || cmd == "" || flag.NArg() != 0 || *workers < 1 {
		fmt.Fprintln(os.Stderr, "usage: apiload -server URL -token-file F [-workers N] [-http1] post|bind|delete [-namespace NS] [-scheduler NAME] [-resource pods|events]")
		os.Exit(2)
	}
	c, err := newClient(*server, *tokenFile, *http1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(2)
	}
	var n int
	var failed int64
	switch cmd {
	case "post":
		n, failed, err = post(c, *workers)
	case "bind":
		if *ns == "" || *scheduler == "" {
			fmt.Fprintln(os.Stderr, "apiload bind: -namespace and -scheduler are required")
			os.Exit(2)
		}
		n, failed, err = bind(c, *workers, *ns, *scheduler)
	case "delete":
		if *ns == "" || (*resource != "pods" && *resource != "events") {
			fmt.Fprintln(os.Stderr, "apiload delete: -namespace and -resource pods|events are required")
			os.Exit(2)
		}
		n, failed, err = deleteAll(c, *workers, *ns, *resource)
	default:
		fmt.Fprintf(os.Stderr, "apiload: unknown command %q (post, bind, delete)\n", cmd)
		os.Exit(2)
	}
	fmt.Printf("apiload %s: %d requested, %d failed\n", cmd, n, failed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(1)
	}
}
