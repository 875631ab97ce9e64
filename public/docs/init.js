// Starts Swagger UI on this page. A file rather than an inline script, so the page's
// Content-Security-Policy can allow scripts from this origin only.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  validatorUrl: null,
  tagsSorter: "alpha",
  docExpansion: "list",
});
