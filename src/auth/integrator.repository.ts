/** The integrator table, for statements of other modules that show an integrator's name. */

/** Fragment: `join integrator <alias> on <alias>.id = <integratorId>`; the name is then `<alias>.name`. */
export function joinIntegratorSql(alias: string, integratorIdExpression: string): string {
  return `join integrator ${alias} on ${alias}.id = ${integratorIdExpression}`;
}
