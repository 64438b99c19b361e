// Swagger UI on /docs, started from a file rather than an inline script, which the Content-Security-Policy forbids.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // the API's unsafe requests carry the session's CSRF token, as the pages' own scripts do
    requestInterceptor: (request) => {
      if (window.__herotableCsrf) request.headers["X-CSRF-Token"] = window.__herotableCsrf;
      return request;
    },
  });
  fetch("/api/v1/csrf", { credentials: "same-origin" })
    .then((answer) => answer.json())
    .then((body) => { window.__herotableCsrf = body.csrf_token; })
    .catch(() => {});
});
