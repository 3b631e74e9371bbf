/**
 * The tool definitions in the shapes model APIs take them, so a harness can pass
 * `GET /api/tools?format=…` to its provider unchanged: Anthropic's Messages API `tools`,
 * OpenAI's Chat Completions `tools` (and its Responses API's flatter variant), or one plain
 * JSON Schema document per tool. The OpenAI shapes are `strict` (the Responses API requires
 * the field; our schemas meet strict mode's rules: every property required, no others).
 * tool-formats.test.ts type-checks each against its provider's official SDK types.
 */
import type { ToolDefinition, ToolFormat } from '../../../shared/src/api.ts';

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export function formatTools(definitions: ToolDefinition[], format: ToolFormat): object[] {
  switch (format) {
    case 'anthropic':
      return definitions.map(({ name, description, input_schema }) => ({
        name,
        description,
        input_schema,
      }));
    case 'openai':
      return definitions.map(({ name, description, input_schema }) => ({
        type: 'function',
        function: { name, description, parameters: input_schema, strict: true },
      }));
    case 'openai-responses':
      return definitions.map(({ name, description, input_schema }) => ({
        type: 'function',
        name,
        description,
        parameters: input_schema,
        strict: true,
      }));
    case 'json-schema':
      return definitions.map(({ name, description, input_schema }) => ({
        $schema: JSON_SCHEMA_DIALECT,
        title: name,
        description,
        ...input_schema,
      }));
  }
}
