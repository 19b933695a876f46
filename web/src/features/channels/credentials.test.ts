import { describe, expect, it } from 'vitest';
import { credentialsForm, fieldErrors, humanize } from './credentials.js';

const TELEGRAM = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    botToken: { type: 'string', minLength: 1, description: 'bot token from @BotFather' },
    chatId: { type: 'string', minLength: 1, description: 'numeric chat id or @channelname' },
  },
  required: ['botToken', 'chatId'],
};

describe('credential forms from the API’s JSON Schema', () => {
  it('labels fields for people', () => {
    expect(humanize('botToken')).toBe('Bot token');
    expect(humanize('chatId')).toBe('Chat ID');
    expect(humanize('siteUrl')).toBe('Site URL');
    expect(humanize('apiKey')).toBe('API key');
    expect(humanize('signerUuid')).toBe('Signer UUID');
    expect(humanize('instance_url')).toBe('Instance URL');
  });

  it('drops the dialect line, hides secrets, keeps the rest of the schema', () => {
    const { schema, uiSchema } = credentialsForm(TELEGRAM);
    expect(schema).not.toHaveProperty('$schema');
    expect(schema.required).toEqual(['botToken', 'chatId']);
    expect(uiSchema.botToken).toMatchObject({ 'ui:title': 'Bot token', 'ui:widget': 'password', 'ui:description': 'Bot token from @BotFather' });
    expect(uiSchema.chatId).toMatchObject({ 'ui:title': 'Chat ID' });
    expect(uiSchema.chatId).not.toHaveProperty('ui:widget');
  });

  it('keeps the schema’s field order and titles, and shows its first example as a placeholder', () => {
    const { schema, uiSchema } = credentialsForm({
      type: 'object',
      properties: {
        identifier: { type: 'string', title: 'Handle', examples: ['yourname.bsky.social'] },
        password: { type: 'string', title: 'App password' },
        service: { type: 'string', title: 'Service (advanced)', default: 'https://bsky.social' },
      },
      required: ['identifier', 'password'],
    });
    expect(Object.keys(schema.properties!)).toEqual(['identifier', 'password', 'service']);
    expect(uiSchema.identifier).toMatchObject({ 'ui:title': 'Handle', 'ui:placeholder': 'yourname.bsky.social' });
    expect(uiSchema.password).toMatchObject({ 'ui:title': 'App password', 'ui:widget': 'password' });
    expect(uiSchema.service).not.toHaveProperty('ui:placeholder');
  });

  it('places the API’s field errors on the fields; the others are answered apart', () => {
    const { schema } = credentialsForm({ ...TELEGRAM, properties: { ...TELEGRAM.properties, relays: { type: 'array', items: { type: 'string' } } } });
    const out = fieldErrors(
      [
        { path: 'botToken', message: 'Telegram refused the bot token' },
        { path: 'relays.1', message: 'Invalid URL' },
        { path: 'body', message: 'Expected an object' },
        { path: 'other', message: 'Unknown' },
      ],
      schema,
    );
    expect(out.errorSchema).toEqual({ botToken: { __errors: ['Telegram refused the bot token'] }, relays: { 1: { __errors: ['Invalid URL'] } } });
    expect(out.unplaced).toEqual(['Expected an object', 'other: Unknown']);
  });
});
