/*
 * http_wait.c - mcps_http_wait_listening: wait for a server the engine just
 * started to accept connections, by connecting to its host and port (plain
 * TCP, curl's CONNECT_ONLY, so names and IPv6 resolve as for the transport)
 * every PROBE_MS until one succeeds, the deadline passes or the run stops.
 */
#include "transport/http.h"

#include <curl/curl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"

#define PROBE_MS 50

/* "http://HOST:PORT/" for url, whatever its scheme: the probe is TCP only. */
static bool probe_url(const char *url, char *out, size_t n)
{
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    bool ok = u && url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
    if (ok)
        ok = (size_t)snprintf(out, n, "http://%s:%s/", host, port) < n;
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return ok;
}

/* One connection attempt until deadline; CURLE_OK once connected. */
static CURLcode attempt(CURLM *m, const char *probe, int64_t deadline, const mcps_guard *guard,
                        char *why, size_t whylen)
{
    CURL *e = curl_easy_init();
    if (!e)
        return CURLE_OUT_OF_MEMORY;
    char errbuf[CURL_ERROR_SIZE] = "";
    int64_t left = deadline - mcps_clock_ms();
    curl_easy_setopt(e, CURLOPT_URL, probe);
    curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, left > 1 ? (long)left : 1L);
    CURLcode rc = CURLE_OPERATION_TIMEDOUT;
    curl_multi_add_handle(m, e);
    struct curl_waitfd stop = {.fd = mcps_guard_fd(guard), .events = CURL_WAIT_POLLIN};
    for (;;) {
        int running, left_msgs;
        curl_multi_perform(m, &running);
        CURLMsg *msg = curl_multi_info_read(m, &left_msgs);
        if (msg && msg->msg == CURLMSG_DONE) {
            rc = msg->data.result;
            break;
        }
        int64_t wait = deadline - mcps_clock_ms();
        if (wait <= 0 || mcps_guard_stopped(guard))
            break;
        curl_multi_poll(m, stop.fd >= 0 ? &stop : NULL, stop.fd >= 0 ? 1 : 0,
                        wait > INT_MAX ? INT_MAX : (int)wait, NULL);
    }
    if (rc != CURLE_OK)
        snprintf(why, whylen, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    curl_multi_remove_handle(m, e);
    curl_easy_cleanup(e);
    return rc;
}

static bool wait_loop(CURLM *m, const char *probe, int64_t deadline, const mcps_guard *guard,
                      char *err, size_t errlen)
{
    char why[CURL_ERROR_SIZE] = "nothing tried";
    int64_t start = mcps_clock_ms();
    for (;;) {
        if (mcps_guard_stopped(guard)) {
            snprintf(err, errlen, "%s", mcps_guard_reason(mcps_guard_stopped(guard)));
            return false;
        }
        int64_t next = mcps_clock_ms() + PROBE_MS;
        if (attempt(m, probe, deadline, guard, why, sizeof why) == CURLE_OK)
            return true;
        int64_t now = mcps_clock_ms();
        if (now >= deadline) {
            snprintf(err, errlen, "nothing accepted connections at %s within %.1f s (%s)", probe,
                     (double)(now - start) / 1000.0, why);
            return false;
        }
        int64_t pause = (next < deadline ? next : deadline) - now;
        struct pollfd pf = {mcps_guard_fd(guard), POLLIN, 0};
        if (pause > 0)
            poll(&pf, pf.fd >= 0 ? 1 : 0, (int)pause);
    }
}

bool mcps_http_wait_listening(const char *url, int64_t deadline_ms, const mcps_guard *guard,
                              char *err, size_t errlen)
{
    char probe[600];
    if (!probe_url(url, probe, sizeof probe)) {
        snprintf(err, errlen, "'%.100s' is not a URL with a host", url ? url : "");
        return false;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(err, errlen, "libcurl cannot initialise");
        return false;
    }
    CURLM *m = curl_multi_init();
    bool ok = false;
    if (!m)
        snprintf(err, errlen, "out of memory");
    else
        ok = wait_loop(m, probe, mcps_guard_clamp(guard, deadline_ms), guard, err, errlen);
    if (m)
        curl_multi_cleanup(m);
    curl_global_cleanup();
    return ok;
}
