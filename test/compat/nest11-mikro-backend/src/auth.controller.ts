import { Body, Controller, Post } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { IsArray, IsString } from 'class-validator';
import { Public } from './auth';

class LoginDto {
  @IsString()
  username!: string;

  @IsArray()
  @IsString({ each: true })
  roles!: string[];
}

/** Stands in for the app's real login: it signs whoever asks, with the roles asked for. */
@Controller('auth')
export class AuthController {
  constructor(private readonly jwt: JwtService) {}

  @Public()
  @Post('login')
  async login(@Body() { username, roles }: LoginDto) {
    return { access_token: await this.jwt.signAsync({ sub: username, roles }) };
  }
}
