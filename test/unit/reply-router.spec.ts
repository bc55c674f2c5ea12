import { InProcessReplyRouter } from '../../src/server/reply-router.js';
import { replyRouterContract } from '../support/reply-router.contract.js';

replyRouterContract('InProcessReplyRouter', () => new InProcessReplyRouter());
