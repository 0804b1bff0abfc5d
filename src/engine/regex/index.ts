export { Re2RegexService, REGEX_ENGINE, MAX_PROGRAM_INSTRUCTIONS } from './service';
