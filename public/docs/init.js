// Starts Swagger UI on this page. A file rather than an inline script, so the page's
// Content-Security-Policy can allow scripts from this origin only. No tagsSorter: sections come in the
// document's tag order (the SII groups first, the operator's Admin last).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  validatorUrl: null,
  docExpansion: "list",
});
