import { Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import { apiDocumentNames, servedDocuments } from './openapi.js';

/** The OpenAPI documents as written, mounted at `/openapi` (`/openapi/<name>.yaml`). */
export function documentRoutes(): Router {
  const router = Router();
  const documents = servedDocuments();
  router.get('/:file', (req, res, next) => {
    const text = documents.get(req.params.file);
    if (!text) return next();
    res.type('application/yaml').send(text);
  });
  return router;
}

/** The interactive API reference, mounted at `/docs`. */
export function referencePage(): Router {
  const router = Router();
  const urls = apiDocumentNames.map((name) => ({ url: `/openapi/${name}.yaml`, name }));
  router.use(swaggerUi.serve);
  router.get('/', swaggerUi.setup(undefined, { explorer: true, customSiteTitle: 'Holdfast API', swaggerOptions: { urls } }));
  return router;
}
