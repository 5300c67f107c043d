import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { apiDocumentNames, servedDocuments } from './openapi.js';

/** The OpenAPI documents as written at `/openapi/<name>.yaml`, and a reference page at `/docs`. */
export function docsRoutes(): Router {
  const router = Router();
  const documents = servedDocuments();
  router.get('/openapi/:file', (req, res, next) => {
    const text = documents.get(req.params.file);
    if (!text) return next();
    res.type('application/yaml').send(text);
  });
  const urls = apiDocumentNames.map((name) => ({ url: `/openapi/${name}.yaml`, name }));
  router.use('/docs', swaggerUi.serve);
  router.get('/docs', swaggerUi.setup(undefined, { customSiteTitle: 'Holdfast API', swaggerOptions: { urls } }));
  return router;
}
